# qbank: multi-stage build; the runtime image has no build tools and runs as a non-root user.
#
# BASE is any Debian-based image with Python 3.11 (`python3` and its venv module): the official
# python:3.11-slim by default, or one made with debootstrap where no registry can be reached
# (deploy/check-image.sh). Behind a TLS-inspecting proxy, hand pip the proxy's CA bundle as a
# build secret, which stays out of every layer:
#   buildah bud --format docker --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt .
#   docker build --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt .
ARG BASE=python:3.11-slim

FROM ${BASE} AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
# A C compiler for dependencies that have no wheel for the platform: pykatex ships none for
# Linux on arm64 (Graviton, Apple Silicon) and is built from its sdist (QuickJS and KaTeX, in C).
# Python's headers come with the official images; a Debian base needs python3-dev for them.
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && if ! python3 -c "import sysconfig, os, sys; sys.exit(not os.path.exists(sysconfig.get_paths()['include'] + '/Python.h'))"; then \
         apt-get install -y --no-install-recommends python3-dev; \
       fi \
    && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/qbank
# `--build-arg PIP_NO_BINARY=pykatex` builds pykatex from its sdist as on arm64, to test that path
# on any machine.
ARG PIP_NO_BINARY
WORKDIR /src
# The locked versions, checked against their hashes; a layer of its own, so code changes
# rebuild only the last step.
COPY requirements.lock ./
RUN --mount=type=secret,id=ca \
    if [ -s /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi \
    && /opt/qbank/bin/pip install --require-hashes -r requirements.lock
COPY pyproject.toml setup.py README.md LICENSE ./
COPY app ./app
COPY templates ./templates
COPY static ./static
COPY content ./content
# A regular (non-editable) install: the wheel carries templates, static files, migrations and
# the bundled content inside the package. `pip check` fails the build if the lock lacks a
# package qbank needs (its own install takes none from PyPI).
RUN --mount=type=secret,id=ca \
    if [ -s /run/secrets/ca ]; then export PIP_CERT=/run/secrets/ca; fi \
    && /opt/qbank/bin/pip install --no-deps . \
    && /opt/qbank/bin/pip check \
    && /opt/qbank/bin/qbank --help >/dev/null

FROM ${BASE}
ENV PATH=/opt/qbank/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    QBANK_CONTENT_DIR=/srv/qbank/content \
    QBANK_DATABASE_URL=sqlite:////var/lib/qbank/qbank.db \
    QBANK_MODE=team
RUN useradd --uid 10001 --no-create-home --home-dir /var/lib/qbank --shell /usr/sbin/nologin qbank \
    && mkdir -p /var/lib/qbank && chown qbank /var/lib/qbank
COPY --from=build /opt/qbank /opt/qbank
# The bundled content; mount your own over /srv/qbank/content to replace it.
COPY content /srv/qbank/content
WORKDIR /srv/qbank
USER qbank
VOLUME ["/var/lib/qbank"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]
# `qbank serve` upgrades the schema (Alembic) before it serves.
CMD ["qbank", "serve", "--host", "0.0.0.0", "--port", "8000"]
