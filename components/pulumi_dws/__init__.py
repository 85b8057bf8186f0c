"""pulumi-dws: Pulumi components for Google Cloud Dynamic Workload Scheduler."""
