from django.contrib.postgres.fields import ArrayField
from django.db import models
from django_ulid import GenMonotonicUlid, UlidField


class Event(models.Model):
    id = UlidField(primary_key=True, db_default=GenMonotonicUlid())
    name = models.TextField(unique=True)
    parent = models.ForeignKey("self", null=True, on_delete=models.CASCADE, related_name="children")
    related = ArrayField(UlidField(), null=True)

    class Meta:
        app_label = "ulidshop"
