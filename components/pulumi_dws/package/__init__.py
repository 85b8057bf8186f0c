"""pulumi-dws as a Pulumi component package (package ``dws``), for programs in any language.

- :mod:`.introspect`: what a spec model (the one declaration of a component's fields) says
  about each argument (type, the Python type users write, required, default, description,
  closed set, limits row, secret, nested objects), the source of everything below.
- :mod:`.args` and :mod:`.python_types`: the args ``TypedDict`` s users write, generated from
  the specs (``kinds/<kind>/args.py``).
- :mod:`.docs`: a page per component (``docs/components/``).
- :mod:`.schema`: the package schema, built from the kind registry (``provider/schema.json``
  is its checked-in copy).
- :mod:`.provider`: the provider plugin: ``GetSchema``, ``Construct`` of every component, and
  the components' dynamic resources served as custom resources (``dws:dynamic:<Name>``).

``docs/multi-language.md`` tells how other languages use it; ``python scripts/generate.py``
writes every generated file (a test fails while one is stale).
"""

PACKAGE_NAME = "dws"
"""The package's name: its tokens are ``dws:<module>:<Name>``."""

__all__ = ["PACKAGE_NAME"]
