"""The project's URLs plus one bench-only endpoint, ``POST bench/bare/``: the reference that
``bench/entry.py`` measures beside recording a hand.

The bare endpoint is a DRF view with the hand endpoint's authentication and permission (a seat
key, as ``bench/entry.py`` sends to both, costs the same one query to check) whose ``POST``
inserts one row, a queued ``ScoresheetJob`` with the request body as its sheet, and answers 201
with a tiny body. It does not enqueue the job's task. Served only under
``DJANGO_SETTINGS_MODULE=bench.settings``.
"""

from django.urls import path
from rest_framework import status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.urls import urlpatterns as project_urlpatterns
from scoring.api import GameApiView
from scoring.models import ScoresheetJob


class BareInsertApi(APIView):
    """``POST``: insert one row and answer 201 with its id."""

    authentication_classes = GameApiView.authentication_classes
    permission_classes = GameApiView.permission_classes

    def post(self, request: Request) -> Response:
        job = ScoresheetJob.objects.create(sheet=request.data)
        return Response({"id": job.pk}, status=status.HTTP_201_CREATED)


urlpatterns = [
    *project_urlpatterns,
    path("bench/bare/", BareInsertApi.as_view(), name="bench-bare"),
]
