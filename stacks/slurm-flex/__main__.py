"""Seed 002's cluster: a login node and a Flex-start partition of A3 Ultra (8 x H200) VMs.

The whole cluster is stack config (``slurm-flex:cluster``, see ``Pulumi.dev.yaml``), in the
shape of :class:`pulumi_dws.SlurmClusterArgs`. Without ``home_directory_storage`` a Filestore
instance is created for ``/home``.
"""

import pulumi

from pulumi_dws import SlurmCluster

config = pulumi.Config()
cluster = SlurmCluster(config.get("name") or "flexvm", config.require_object("cluster"))

pulumi.export("cluster", cluster.name)
pulumi.export("state", cluster.state)
pulumi.export("login_address", cluster.login_address)
pulumi.export("partitions", cluster.partitions)
pulumi.export("home", cluster.home_directory_storage)
