"""SQLAlchemy 2 on psycopg 3 through examples/sqlalchemy_ulid.py: DDL, an ORM
model whose key the server generates, and queries by ULID and by time."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa
from sqlalchemy.dialects.postgresql import psycopg as pg_psycopg
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column
from sqlalchemy.schema import CreateTable
from ulid import ULID

# the adapter as users copy it beside their code, examples/ (the
# virtualenv has it installed: pyproject.toml)
from sqlalchemy_ulid import UlidType, ulid_from_time


class Base(DeclarativeBase):
    type_annotation_map = {ULID: UlidType}


class Event(Base):
    __tablename__ = "events"

    id: Mapped[ULID] = mapped_column(primary_key=True, server_default=sa.func.gen_monotonic_ulid())
    name: Mapped[str] = mapped_column(unique=True)
    parent_id: Mapped[ULID | None] = mapped_column(sa.ForeignKey("events.id"))


def ulid_of(ms: int, random: int) -> ULID:
    return ULID.from_bytes(ms.to_bytes(6, "big") + random.to_bytes(10, "big"))


def utc_ms(ms: int) -> datetime:
    return datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=ms)


@pytest.fixture
def engine(cluster, db):
    url = sa.URL.create(
        "postgresql+psycopg", username="postgres", port=cluster.port, database=db,
        query={"host": str(cluster.dir)},
    )
    engine = sa.create_engine(url)
    Base.metadata.create_all(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def statements(engine):
    """The SQL the engine sends, to see how keys come back."""
    sent: list[str] = []
    sa.event.listen(engine, "before_cursor_execute", lambda conn, cur, sql, *args: sent.append(sql))
    return sent


def test_ddl_declares_ulid_columns(engine):
    ddl = str(CreateTable(Event.__table__).compile(dialect=pg_psycopg.dialect()))
    assert "id ulid DEFAULT gen_monotonic_ulid() NOT NULL" in ddl
    assert "parent_id ulid," in ddl
    with engine.connect() as conn:
        columns = conn.execute(sa.text(
            "SELECT attname, format_type(atttypid, atttypmod), pg_get_expr(adbin, adrelid)"
            " FROM pg_attribute LEFT JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum"
            " WHERE attrelid = 'events'::regclass AND attnum > 0 ORDER BY attnum"
        )).all()
    assert columns == [
        ("id", "ulid", "gen_monotonic_ulid()"),
        ("name", "character varying", None),
        ("parent_id", "ulid", None),
    ]


def test_server_generated_keys_come_back_as_ulids(engine, statements):
    with Session(engine) as session:
        first = Event(name="first")
        session.add(first)
        session.flush()
        assert isinstance(first.id, ULID)
        assert any("INSERT INTO events" in s and "RETURNING events.id" in s for s in statements)

        more = [Event(name=f"e{i}") for i in range(50)]
        session.add_all(more)
        session.flush()
        keys = [first.id] + [e.id for e in more]
        assert all(isinstance(k, ULID) for k in keys)
        # one backend, gen_monotonic_ulid(): the order of the inserts
        assert keys == sorted(keys) and len(set(keys)) == len(keys)
        session.commit()

    # what the ORM holds is what the table holds, row by row
    with engine.connect() as conn:
        stored = dict(conn.execute(sa.text("SELECT name, id::text FROM events")).all())
    assert stored == {"first": str(keys[0]), **{f"e{i}": str(k) for i, k in enumerate(keys[1:])}}


def test_queries_by_ulid_parameters(engine):
    explicit = [ulid_of(0, 0), ulid_of(2**48 - 1, 2**80 - 1), ulid_of(1_704_067_200_000, 2**79), ULID()]
    with Session(engine) as session:
        session.add_all(Event(id=u, name=f"x{i}") for i, u in enumerate(explicit))
        made = [Event(name=f"m{i}") for i in range(20)]
        session.add_all(made)
        session.flush()
        made[3].parent_id = explicit[2]
        session.commit()
        everything = explicit + [e.id for e in made]

    with Session(engine) as session:
        for i, u in enumerate(explicit):
            event = session.get(Event, u)
            assert event is not None and event.name == f"x{i}" and event.id == u
            assert session.scalars(sa.select(Event.name).where(Event.id == u)).one() == f"x{i}"
        assert session.get(Event, ulid_of(5, 5)) is None
        # a parameter is sent as a ulid even where nothing around it says so
        typeof = sa.func.pg_typeof(sa.literal(explicit[3], UlidType())).cast(sa.Text)
        assert session.scalar(sa.select(typeof)) == "ulid"
        assert session.scalar(sa.select(sa.literal(explicit[3], UlidType()))) == explicit[3]

        # the server's order is python-ulid's order
        assert session.scalars(sa.select(Event.id).order_by(Event.id)).all() == sorted(everything)
        picked = [everything[1], everything[10], everything[0]]
        names = session.scalars(sa.select(Event.name).where(Event.id.in_(picked)).order_by(Event.id)).all()
        assert names == ["x0", "m6", "x1"]
        assert session.scalars(sa.select(Event.id).where(Event.id > explicit[2]).order_by(Event.id)).all() == \
            sorted(u for u in everything if u > explicit[2])

        # NULL is None, and a foreign key to a ulid works both ways
        child = session.scalars(sa.select(Event).where(Event.parent_id == explicit[2])).one()
        assert child.name == "m3" and child.parent_id == explicit[2]
        assert session.scalar(sa.select(sa.func.count()).where(Event.parent_id.is_(None))) == len(everything) - 1
        assert session.get(Event, explicit[0]).parent_id is None


def test_queries_by_time_range(engine):
    start, end = 1_704_067_200_000, 1_704_067_200_010  # ms: [start, end)
    inside = [ulid_of(start, 0), ulid_of(start, 2**80 - 1), ulid_of(start + 5, 7), ulid_of(end - 1, 2**80 - 1)]
    outside = [ulid_of(start - 1, 2**80 - 1), ulid_of(end, 0), ulid_of(end, 1), ulid_of(0, 0)]
    with Session(engine) as session:
        session.add_all(Event(id=u, name=str(u)) for u in inside + outside)
        session.add(Event(name="now"))  # the server's clock, far outside
        session.commit()

        # sub-millisecond parts of the bounds are dropped, as timestamptz::ulid does
        lo, hi = utc_ms(start) + timedelta(microseconds=999), utc_ms(end) + timedelta(microseconds=1)
        found = session.scalars(
            sa.select(Event.id).where(Event.id >= ulid_from_time(lo), Event.id < ulid_from_time(hi)).order_by(Event.id)
        ).all()
        assert found == sorted(inside)
        assert session.scalar(sa.select(ulid_from_time(lo))) == ulid_of(start, 0)

        # ulid_timestamp() is python-ulid's timestamp, to the millisecond
        stamp = sa.func.ulid_timestamp(Event.id, type_=sa.DateTime(timezone=True))
        for u, at in session.execute(sa.select(Event.id, stamp)).all():
            assert at == utc_ms(u.milliseconds), u
        recent = session.scalars(
            sa.select(Event.name).where(Event.id >= ulid_from_time(datetime.now(timezone.utc) - timedelta(hours=1)))
        ).all()
        assert recent == ["now"]


def test_invalid_values_are_reported_by_the_server(engine):
    with Session(engine) as session:
        with pytest.raises(sa.exc.DataError) as bad:
            session.get(Event, "8" + "0" * 25)
        assert bad.value.orig.sqlstate == "22P02"
        session.rollback()
        with pytest.raises(sa.exc.DataError) as bad:
            session.scalar(sa.select(ulid_from_time(datetime(1969, 12, 31, 23, 59, tzinfo=timezone.utc))))
        assert bad.value.orig.sqlstate == "22008"
