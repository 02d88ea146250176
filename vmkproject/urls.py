from django.conf import settings
from django.contrib import admin
from django.templatetags.static import static
from django.urls import URLPattern, URLResolver, path, re_path
from django.views.generic import RedirectView

from mcpserver import oauth


class FaviconView(RedirectView):
    """Browsers ask every site for /favicon.ico: the project's icon (resolved per request,
    after the static storage is set up)."""

    permanent = True

    def get_redirect_url(self, *args: object, **kwargs: object) -> str:
        return static("mcpserver/icon.svg")


urlpatterns: list[URLPattern | URLResolver] = [
    path("admin/", admin.site.urls),
    path("favicon.ico", FaviconView.as_view()),
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
