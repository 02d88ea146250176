#!/usr/bin/env python
import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vmkproject.settings")
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    from vmkproject.sqlcomment import command

    try:
        with command(sys.argv):
            execute_from_command_line(sys.argv)
    except ImproperlyConfigured as error:
        # A setting the environment got wrong (settings.py names it): the message is the
        # whole answer, a traceback would only hide it.
        message = str(error)
        sys.exit(f"error: {message}" + ("" if ".env.example" in message else " (see .env.example)"))


if __name__ == "__main__":
    main()
