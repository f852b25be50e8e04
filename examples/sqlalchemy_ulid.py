"""Using ulid columns from SQLAlchemy 2 on PostgreSQL, as python-ulid's `ULID`.

`UlidType` is the column type: it renders as `ulid` in DDL, sends `ULID`
values as their text and reads results back as `ULID` objects. Parameters
are rendered with a cast (`%(id)s::ulid`), so they are ulids wherever they
appear, not strings the server has to guess a type for.

    from sqlalchemy import func
    from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
    from ulid import ULID
    from sqlalchemy_ulid import UlidType, ulid_from_time

    class Base(DeclarativeBase):
        type_annotation_map = {ULID: UlidType}

    class Order(Base):
        __tablename__ = "orders"
        id: Mapped[ULID] = mapped_column(primary_key=True, server_default=func.gen_monotonic_ulid())

    # orders made in March, to the millisecond, from the primary key's index
    select(Order).where(Order.id >= ulid_from_time(march), Order.id < ulid_from_time(april))

Tested with the `postgresql+psycopg://` (psycopg 3) dialect.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, cast, literal
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.types import UserDefinedType
from ulid import ULID


class UlidType(UserDefinedType):
    """The `ulid` type, as python-ulid's `ULID` in Python."""

    cache_ok = True
    render_bind_cast = True

    def get_col_spec(self, **kw) -> str:
        return "ulid"

    @property
    def python_type(self) -> type:
        return ULID

    def bind_processor(self, dialect):
        def process(value):
            # a str goes through as it is, for the server to validate
            return None if value is None else str(value)

        return process

    def result_processor(self, dialect, coltype):
        def process(value):
            return None if value is None else ULID.from_str(value)

        return process


def ulid_from_time(when: datetime) -> ColumnElement[ULID]:
    """The smallest ULID of `when`'s millisecond (`timestamptz::ulid`), as SQL:
    `id >= ulid_from_time(start) AND id < ulid_from_time(end)` selects the
    ids made in [start, end) and can use an index on id."""
    return cast(literal(when, DateTime(timezone=True)), UlidType())
