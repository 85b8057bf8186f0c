"""pulumi-dws as a Pulumi component package (package ``dws``), for programs in any language.

- :mod:`.introspect`: what a spec model says about each argument (type, required, default,
  description, closed set, secret, nested objects), the source of everything below.
- :mod:`.schema`: the package schema, built from the kind registry (``provider/schema.json``
  is its checked-in copy).
- :mod:`.provider`: the provider plugin: ``GetSchema``, ``Construct`` of every component, and
  the components' dynamic resources served as custom resources (``dws:dynamic:<Name>``).

``docs/multi-language.md`` tells how other languages use it.
"""

PACKAGE_NAME = "dws"
"""The package's name: its tokens are ``dws:<module>:<Name>``."""

__all__ = ["PACKAGE_NAME"]
