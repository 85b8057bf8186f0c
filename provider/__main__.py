"""Entry point of the ``dws`` provider plugin (``python <this folder> <engine address>``)."""

from pulumi_dws.package.provider import main

if __name__ == "__main__":
    main()
