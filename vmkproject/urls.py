from django.conf import settings
from django.contrib import admin
from django.urls import URLPattern, URLResolver, path, re_path

from mcpserver import oauth

urlpatterns: list[URLPattern | URLResolver] = [
    path("admin/", admin.site.urls),
]
if settings.OAUTH_SERVER:
    urlpatterns += oauth.authorization_server_urls()
if oauth.enabled():
    urlpatterns += oauth.resource_metadata_urls()
else:
    # Where clients of the 2025-03-26 MCP spec look for OAuth endpoints without metadata.
    urlpatterns += [re_path(r"^(register|authorize|token)/?$", oauth.well_known_missing)]
# Every other /.well-known/ address answers JSON (never the HTML 404 page), saying plainly
# when this server does not use OAuth.
urlpatterns += [re_path(r"^\.well-known/", oauth.well_known_missing)]
