"""A small Django app for tests/clients/test_client_django.py: models with
ulid keys, foreign keys and arrays, through examples/django_ulid.py. Its
migrations are made by makemigrations during the test, outside the source
tree."""
