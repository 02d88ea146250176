from django.apps import AppConfig


class DemoConfig(AppConfig):
    """The demo wing: the embedded PostgreSQL with its synthetic listings, and generate_listings."""

    name = "demo"
    verbose_name = "Demo data"

    def ready(self) -> None:
        # The hook acts only on an alias whose settings have an EMBEDDED entry: the settings
        # give it one when no listings database is configured (EMBEDDED_DB).
        from vmkproject import db

        from . import embedded

        db.before_connect(embedded.start_for_connection)
        db.at_shutdown(embedded.stop_all)
        db.when_serving(embedded.start_background_fill)
