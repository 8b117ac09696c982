# qbank: multi-stage build; the runtime image has no build tools and runs as a non-root user.
FROM python:3.11-slim AS build
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
RUN python -m venv /opt/qbank
WORKDIR /srv/qbank
COPY pyproject.toml README.md ./
COPY app ./app
# Installed in place: templates/ and static/ are read next to the app package.
RUN /opt/qbank/bin/pip install -e .

FROM python:3.11-slim
ENV PATH=/opt/qbank/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    QBANK_CONTENT_DIR=/srv/qbank/content \
    QBANK_DATABASE_URL=sqlite:////var/lib/qbank/qbank.db \
    QBANK_MODE=team
RUN useradd --system --uid 10001 --no-create-home qbank \
    && mkdir -p /var/lib/qbank && chown qbank /var/lib/qbank
COPY --from=build /opt/qbank /opt/qbank
WORKDIR /srv/qbank
COPY --from=build /srv/qbank ./
COPY templates ./templates
COPY static ./static
# The bundled content; mount your own over /srv/qbank/content to replace it.
COPY content ./content
USER qbank
VOLUME ["/var/lib/qbank"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]
# `qbank serve` upgrades the schema (Alembic) before it serves.
CMD ["qbank", "serve", "--host", "0.0.0.0", "--port", "8000"]
