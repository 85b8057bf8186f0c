// Flex-start GPU capacity from TypeScript: the dws package's components (generated SDK in
// sdks/dws), checked by the same provider code as the Python library.
import * as dws from "@pulumi/dws";

// Four H100 VMs at once (all or nothing) through a MIG resize request, for 3 days.
const trainers = new dws.FlexStartGroup("trainers", {
    zone: "us-central1-a",
    machineType: "a3-highgpu-8g",
    count: 4,
    runDuration: "3d",
    labels: { team: "research" },
});

// One VM for evaluation: queued up to 2 hours, then running up to a day, stopped at the end.
const evaluator = new dws.FlexStartInstance("evaluator", {
    zone: "us-central1-a",
    machineType: "a3-highgpu-8g",
    maxRunDuration: "1d",
    requestValidFor: "2h",
    terminationAction: "STOP",
    labels: { team: "research" },
});

// A TPU v6e slice of 16 chips, Flex-start, waiting up to 2 hours in the queue.
const slice = new dws.QueuedTpu("tpu-trainer", {
    zone: "us-east5-a",
    acceleratorType: "v6e-16",
    maxRunDuration: "1d",
    requestValidFor: "2h",
    labels: { team: "research" },
});

// The RDMA networks A4 VMs train across (2 gVNIC + 8 MRDMA NICs per VM), and two A4 VMs on
// them for a day: the group takes every NIC from the network.
const a4Network = new dws.GpuNetwork("a4-net", {
    zone: "us-central1-b",
    machineType: "a4-highgpu-8g",
});

const a4Trainers = new dws.FlexStartGroup("a4-trainers", {
    zone: "us-central1-b",
    machineType: "a4-highgpu-8g",
    count: 2,
    runDuration: "1d",
    gpuNetwork: a4Network,
    labels: { team: "research" },
});

export const groupName = trainers.groupName;
export const trainerVms = trainers.instanceNames;
export const evaluatorStatus = evaluator.status;
export const tpuState = slice.state;
export const tpuChips = slice.chips;
export const a4GroupName = a4Trainers.groupName;
export const a4RdmaSubnetworks = a4Network.rdmaSubnetworkLinks;
