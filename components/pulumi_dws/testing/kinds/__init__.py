"""Test aids of each capacity kind (mocks behaviour, policy samples and examples), one module
per kind, named by the kind's declaration (:mod:`pulumi_dws.registry`) and imported only by
:mod:`pulumi_dws.testing`."""
