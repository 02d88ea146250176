# syntax=docker/dockerfile:1
# Multi-stage build: wheels are built in the first stage, the runtime has no compilers.
# docker-compose.yml runs two of these behind HAProxy, through PgBouncer (deploy/).
FROM python:3.11-slim-bookworm AS build
WORKDIR /src
ENV PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
COPY pyproject.toml README.md ./
COPY vmkproject ./vmkproject
COPY listings ./listings
COPY mcpserver ./mcpserver
COPY demo ./demo
COPY bench ./bench
RUN python -m venv /opt/venv && /opt/venv/bin/pip install --upgrade pip && /opt/venv/bin/pip install .

FROM python:3.11-slim-bookworm AS runtime
# hunspell-uk: the Ukrainian dictionary, only needed when the embedded demo database runs here.
RUN apt-get update \
    && apt-get install -y --no-install-recommends hunspell-uk \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --create-home --uid 10001 vmk
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    DJANGO_SETTINGS_MODULE=vmkproject.settings \
    VMK_DATA_DIR=/data \
    MCP_HOST=0.0.0.0 \
    MCP_PORT=3000
COPY --from=build /opt/venv /opt/venv
WORKDIR /app
COPY manage.py ./
RUN mkdir -p /data && chown vmk:vmk /data
USER vmk
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
    CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:3000/health', timeout=4).status != 200)"
# Django's own tables (admin users, agent keys, audit log) are migrated at start.
CMD ["sh", "-c", "python manage.py migrate --noinput && exec python manage.py serve"]
