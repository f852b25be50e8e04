"""Django on psycopg 3 through examples/django_ulid.py: makemigrations and
migrate for a small app (tests/clients/django/ulidshop) create ulid columns,
the server fills in keys, and the ORM queries by ULID, by time and by arrays.

Django is configured in this process, once, against a database of the test
cluster; the app's migrations are written to a temporary directory."""

from __future__ import annotations

import os
import shutil
import uuid
from datetime import datetime, timedelta, timezone

import pytest

django = pytest.importorskip(
    "django", reason="Django is not installed here: pip install --require-hashes -r tests/requirements.txt"
)

from django.conf import settings  # noqa: E402
from django.core.exceptions import ValidationError  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import DataError, connection, connections, transaction  # noqa: E402
from django.db.models import F, Func  # noqa: E402
from django.db.models.expressions import DatabaseDefault  # noqa: E402
from django.db.models.fields import DateTimeField  # noqa: E402
from ulid import ULID  # noqa: E402

from harness.pgcluster import ROOT  # noqa: E402

# Django 5.2 refuses PostgreSQL before 14 (tests/clients/conftest.py runs
# this file on the oldest build of a run from 14 on)
OLDEST_MAJOR = 14



def ulid_of(ms: int, random: int) -> ULID:
    return ULID.from_bytes(ms.to_bytes(6, "big") + random.to_bytes(10, "big"))


def utc_ms(ms: int) -> datetime:
    return datetime(1970, 1, 1, tzinfo=timezone.utc) + timedelta(milliseconds=ms)


@pytest.fixture(scope="module")
def migrated(cluster):
    """Django set up against a fresh database, the app migrated; yields the
    text of the migration makemigrations wrote."""
    if cluster.version < OLDEST_MAJOR:
        pytest.skip(f"Django {django.get_version()} refuses PostgreSQL before 14; this server is {cluster.version}")
    assert not settings.configured, "Django is configured once per process, by this module"
    name = cluster.create_database("django_" + uuid.uuid4().hex[:10])
    # a package Django can import by name and write into: under target/,
    # which the project's root on the path makes target.django.RUN
    run = f"run_{os.getpid()}"
    migrations = ROOT / "target" / "django" / run
    shutil.rmtree(migrations, ignore_errors=True)
    (migrations / "ulidshop_migrations").mkdir(parents=True)
    (migrations / "ulidshop_migrations" / "__init__.py").write_text("")
    settings.configure(
        DATABASES={"default": {
            "ENGINE": "django.db.backends.postgresql", "NAME": name, "USER": "postgres",
            "HOST": str(cluster.dir), "PORT": str(cluster.port),
        }},
        INSTALLED_APPS=["django.contrib.postgres", "clients.django.ulidshop"],
        MIGRATION_MODULES={"ulidshop": f"target.django.{run}.ulidshop_migrations"},
        USE_TZ=True,
    )
    django.setup()
    call_command("makemigrations", "ulidshop", verbosity=0)
    written = sorted((migrations / "ulidshop_migrations").glob("0001_*.py"))
    assert len(written) == 1, written
    call_command("migrate", verbosity=0)
    yield written[0].read_text()
    connections.close_all()
    with cluster.connect() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    shutil.rmtree(migrations, ignore_errors=True)


@pytest.fixture
def Event(migrated):  # noqa: N802 (a model class)
    from clients.django.ulidshop.models import Event

    yield Event
    Event.objects.all().delete()


def test_migrations_create_ulid_columns(migrated, Event):
    assert "('id', django_ulid.UlidField(db_default=django_ulid.GenMonotonicUlid(), primary_key=True" in migrated
    assert "django.contrib.postgres.fields.ArrayField(base_field=django_ulid.UlidField()" in migrated
    with connection.cursor() as cur:
        cur.execute(
            "SELECT attname, format_type(atttypid, atttypmod), pg_get_expr(adbin, adrelid)"
            " FROM pg_attribute LEFT JOIN pg_attrdef ON adrelid = attrelid AND adnum = attnum"
            " WHERE attrelid = %s::regclass AND attnum > 0 ORDER BY attnum", [Event._meta.db_table]
        )
        assert cur.fetchall() == [
            ("id", "ulid", "gen_monotonic_ulid()"),
            ("name", "text", None),
            ("related", "ulid[]", None),
            ("parent_id", "ulid", None),
        ]
    # the field deconstructs to what it was made from: nothing left to migrate
    call_command("makemigrations", "ulidshop", check=True, dry_run=True, verbosity=0)


def test_server_generated_keys_come_back_as_ulids(Event):
    before = datetime.now(timezone.utc)
    first = Event.objects.create(name="first")
    assert isinstance(first.id, ULID)
    assert abs(first.id.datetime - before) < timedelta(seconds=5)

    more = [Event.objects.create(name=f"e{i}") for i in range(30)]
    keys = [first.id] + [e.id for e in more]
    assert all(isinstance(k, ULID) for k in keys)
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    stored = dict(Event.objects.values_list("name", "id"))
    assert stored == {"first": first.id, **{f"e{i}": e.id for i, e in enumerate(more)}}


def test_bulk_create_leaves_server_keys_unread(Event):
    # Django reads a key back from RETURNING only for objects without one, and
    # a db_default counts as one: the rows get their keys, the objects do not.
    made = Event.objects.bulk_create([Event(name=f"b{i}") for i in range(5)])
    assert all(isinstance(e.id, DatabaseDefault) for e in made)
    stored = list(Event.objects.filter(name__startswith="b").order_by("id").values_list("name", "id"))
    assert [name for name, _ in stored] == [f"b{i}" for i in range(5)]
    assert all(isinstance(key, ULID) for _, key in stored)
    # keys made in Python are sent as they are
    keys = sorted(ULID() for _ in range(5))
    Event.objects.bulk_create([Event(id=k, name=f"p{i}") for i, k in enumerate(keys)])
    assert list(Event.objects.filter(name__startswith="p").order_by("name").values_list("id", flat=True)) == keys


def test_queries_by_ulid(Event):
    parent = Event.objects.create(name="parent")
    kids = [Event.objects.create(name=f"kid{i}", parent=parent) for i in range(3)]
    explicit = [ulid_of(0, 0), ulid_of(2**48 - 1, 2**80 - 1), ULID()]
    for i, u in enumerate(explicit):
        Event.objects.create(id=u, name=f"x{i}")

    assert Event.objects.get(pk=parent.id).name == "parent"
    # the server reads every spelling as the same ulid
    for spelling in (str(parent.id), str(parent.id).lower(), parent.id.to_uuid(), str(parent.id.to_uuid())):
        assert Event.objects.get(pk=spelling).id == parent.id
    for i, u in enumerate(explicit):
        assert Event.objects.get(pk=u).name == f"x{i}"
    assert not Event.objects.filter(pk=ulid_of(5, 5)).exists()

    picked = Event.objects.filter(id__in=[kids[2].id, kids[0].id]).order_by("id")
    assert [e.id for e in picked] == [kids[0].id, kids[2].id]
    assert [e.id for e in parent.children.order_by("-id")] == [k.id for k in reversed(kids)]
    kid = Event.objects.select_related("parent").get(pk=kids[1].id)
    assert kid.parent_id == parent.id and kid.parent.name == "parent"
    assert sorted(Event.objects.filter(parent__name="parent").values_list("id", flat=True)) == [k.id for k in kids]
    everything = [parent.id, *(k.id for k in kids), *explicit]
    assert list(Event.objects.order_by("id").values_list("id", flat=True)) == sorted(everything)


def test_nulls(Event):
    lone = Event.objects.create(name="lone")
    child = Event.objects.create(name="child", parent=lone)
    assert lone.parent_id is None and Event.objects.get(pk=lone.id).related is None
    assert list(Event.objects.filter(parent__isnull=True).values_list("id", flat=True)) == [lone.id]
    Event.objects.filter(pk=child.id).update(parent=None)
    assert Event.objects.get(pk=child.id).parent is None


def test_ulid_arrays_are_lists(Event):
    ids = [ULID(), ulid_of(0, 0), ulid_of(2**48 - 1, 2**80 - 1)]
    made = Event.objects.create(name="arrays", related=ids)
    Event.objects.create(name="empty", related=[])
    back = Event.objects.get(pk=made.id)
    assert back.related == ids and all(isinstance(u, ULID) for u in back.related)
    assert Event.objects.get(name="empty").related == []
    assert list(Event.objects.filter(related__contains=[ids[1]]).values_list("name", flat=True)) == ["arrays"]
    assert Event.objects.filter(related__len=3).get().id == made.id
    # a raw query on Django's connection reads ulid[] as a list as well
    with connection.cursor() as cur:
        cur.execute("SELECT related FROM ulidshop_event WHERE id = %s", [str(made.id)])
        assert cur.fetchone()[0] == [str(u) for u in ids]


def test_queries_by_time_range(Event):
    from django_ulid import ulid_from_time

    start, end = 1_704_067_200_000, 1_704_067_200_010  # ms: [start, end)
    inside = [ulid_of(start, 0), ulid_of(start, 2**80 - 1), ulid_of(start + 5, 7), ulid_of(end - 1, 2**80 - 1)]
    outside = [ulid_of(start - 1, 2**80 - 1), ulid_of(end, 0), ulid_of(0, 0)]
    Event.objects.bulk_create([Event(id=u, name=str(u)) for u in inside + outside])
    Event.objects.create(name="now")

    # sub-millisecond parts of the bounds are dropped, as timestamptz::ulid does
    lo, hi = utc_ms(start) + timedelta(microseconds=999), utc_ms(end) + timedelta(microseconds=1)
    found = Event.objects.filter(id__gte=ulid_from_time(lo), id__lt=ulid_from_time(hi)).order_by("id")
    assert [e.id for e in found] == sorted(inside)
    recent = Event.objects.filter(id__gte=ulid_from_time(datetime.now(timezone.utc) - timedelta(hours=1)))
    assert list(recent.values_list("name", flat=True)) == ["now"]

    stamps = Event.objects.annotate(at=Func(F("id"), function="ulid_timestamp", output_field=DateTimeField()))
    for e in stamps:
        assert e.at == utc_ms(e.id.milliseconds), e.id


def test_python_ulid_values_round_trip(Event):
    values = [ULID() for _ in range(20)] + [ULID.from_datetime(datetime(2025, 1, 1, tzinfo=timezone.utc))]
    Event.objects.bulk_create([Event(id=u, name=f"v{i}") for i, u in enumerate(values)])
    for i, u in enumerate(values):
        assert Event.objects.get(name=f"v{i}").id == u
    assert list(Event.objects.order_by("id").values_list("id", flat=True)) == sorted(values)


def test_bad_input_is_the_servers_22p02(Event):
    for bad in ["8" + "0" * 25, "not a ulid", str(ULID())[1:]]:
        with pytest.raises(DataError) as error, transaction.atomic():
            Event.objects.get(pk=bad)
        assert error.value.__cause__.sqlstate == "22P02"
        with pytest.raises(DataError) as error, transaction.atomic():
            Event.objects.create(name="bad", related=[ULID(), bad])
        assert error.value.__cause__.sqlstate == "22P02"
    assert not Event.objects.filter(name="bad").exists()

    # model validation uses python-ulid, before anything is sent
    from django_ulid import UlidField

    with pytest.raises(ValidationError):
        UlidField().clean("8" + "0" * 25, None)
    assert UlidField().clean(str(ULID.from_hex("0" * 32)).lower(), None) == ULID.from_hex("0" * 32)
