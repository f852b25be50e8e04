"""Using ulid columns from Django (PostgreSQL backend on psycopg 3), as
python-ulid's `ULID`.

`UlidField` is a model field: migrations create `ulid` columns (and `ulid`
foreign keys to them), values come back as `ULID` objects, and parameters
are sent as text, which the server reads as ulids (a `ULID`, its string in
either case, or a `uuid.UUID`). `GenMonotonicUlid()` is the server's
generator, for a primary key the database fills in:

    from django.contrib.postgres.fields import ArrayField
    from django.db import models
    from django_ulid import GenMonotonicUlid, UlidField, ulid_from_time

    class Order(models.Model):
        id = UlidField(primary_key=True, db_default=GenMonotonicUlid())
        related = ArrayField(UlidField(), default=list)

    order = Order.objects.create()      # order.id is a ULID, from RETURNING
    Order.objects.filter(id__gte=ulid_from_time(start), id__lt=ulid_from_time(end))

psycopg returns a type it does not know as text, and an array of it as the
array's text. Importing this module registers the ulid type with every new
PostgreSQL connection (Django's `connection_created` signal), so `ulid[]`
columns (`ArrayField(UlidField())`) come back as lists of `ULID`. The
extension must exist when the connection opens: a connection opened before
`CREATE EXTENSION ulid` reads `ulid[]` as text until it reconnects.

Tested with Django 5.2 and psycopg 3.
"""

from __future__ import annotations

import uuid
from datetime import datetime

from django.core.exceptions import ValidationError
from django.db import models
from django.db.backends.signals import connection_created
from django.db.models.functions import Cast
from psycopg.types import TypeInfo
from ulid import ULID


class UlidField(models.Field):
    """A `ulid` column, as python-ulid's `ULID` in Python."""

    description = "ULID"
    empty_strings_allowed = False

    def db_type(self, connection) -> str:
        return "ulid"

    def from_db_value(self, value, expression, connection):
        return None if value is None else ULID.from_str(value)

    def to_python(self, value):
        if value is None or isinstance(value, ULID):
            return value
        try:
            if isinstance(value, uuid.UUID):
                return ULID.from_uuid(value)
            return ULID.from_str(value) if len(value) == 26 else ULID.from_uuid(uuid.UUID(value))
        except (TypeError, ValueError) as error:
            raise ValidationError("“%(value)s” is not a valid ULID.", code="invalid", params={"value": value}) from error

    def get_prep_value(self, value):
        value = super().get_prep_value(value)
        # A str goes through as it is, for the server to validate: bad text
        # is the server's error 22P02 (a DataError), as for any other type.
        return None if value is None else str(value)


class GenMonotonicUlid(models.Func):
    """`gen_monotonic_ulid()`: a `db_default` for a `UlidField` key."""

    function = "gen_monotonic_ulid"
    output_field = UlidField()


def ulid_from_time(when: datetime) -> Cast:
    """The smallest ULID of `when`'s millisecond (`timestamptz::ulid`), as an
    expression: `id__gte=ulid_from_time(start), id__lt=ulid_from_time(end)`
    selects the ids made in [start, end) and can use the id's index."""
    return Cast(Cast(models.Value(when), models.DateTimeField()), UlidField())


def register_ulid(sender, connection, **kwargs) -> None:
    """Tells psycopg the ulid type's OIDs on a new connection, so that arrays
    of ulids load as lists. OIDs differ between databases: looked up by name."""
    if connection.vendor != "postgresql":
        return
    info = TypeInfo.fetch(connection.connection, "ulid")
    if info is not None:
        info.register(connection.connection)


connection_created.connect(register_ulid, dispatch_uid="django_ulid.register_ulid")
