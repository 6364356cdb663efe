// Public face of the node network: the agent, IPAM, the pod network model and the CNI pieces.
export { NetworkAgent, type NetworkAgentOptions } from './agent.js';
export { IPAM, IPAMExhaustedError, type Allocation, type AllocationOwner } from './ipam.js';
export { parseCidr, formatCidr, parseIPv4, formatIPv4, cidrContains, assignableRange, nodeReservedAddress, type Cidr } from './cidr.js';
export { podNetworkOps, nodeNetworkOps, hostVethName, randomPodMac, POD_ROUTE_PROTOCOL, NODE_ROUTE_PROTOCOL, POD_GATEWAY, HOST_VETH_MAC, HOST_VETH_PREFIX, type PodNetwork } from './podnet.js';
export { collectGarbage, staleAllocations } from './gc.js';
export { conflist, writeConflist, installPlugin, pluginBinary, CONFLIST_NAME, DEFAULT_SOCKET, PLUGIN_NAME } from './install.js';
export { handleRequest, type CNIHandlerContext, type CNIReply } from './cni/handler.js';
export { serveCNI, type CNIServer } from './cni/server.js';
export { CNIError, CNI_ERROR } from './cni/errors.js';
export { SUPPORTED_VERSIONS, parseNetConf, parseEnv, parseArgs } from './cni/config.js';
export { parseRequest, encodeRequest, encodeReply, parseReply, type CNIRequest } from './cni/wire.js';
export { NAT_TABLE, NAT_CHAIN, natOutgoingRule, natTable, syncNatOutgoing } from './nat.js';
export { PolicyEnforcer, policyTable, POLICY_TABLE, computeModel, explainFlow, type Explanation, type PolicyModel, type PolicyCounts } from './policy/index.js';
