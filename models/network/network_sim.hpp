// How a network profile (profiles.hpp) is applied to SimGrid: the flow model, NIC links, and the
// per-message factors (message-size bandwidth factors, the rendezvous handshake) as SimGrid callbacks.
#pragma once

#include <simgrid/s4u.hpp>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "models/network/profiles.hpp"

namespace ciosim::network {

namespace sg4 = simgrid::s4u;

/// SimGrid's CM02 flow model (latency + size/bandwidth, max-min sharing, no hidden factors: the default
/// LV08 would multiply latencies by 13.01), with cross-traffic off (framing overhead is in each profile's
/// size factors instead). Must be called before the platform is built.
void use_flow_model();

/// A split-duplex NIC link of the profile's wire bandwidth and latency, sealed.
sg4::SplitDuplexLink* create_nic(sg4::NetZone* zone, const std::string& name, const NetworkProfile& p);

/// Installs the message-size bandwidth factors and the rendezvous latency factor. A message with a file
/// system server at either end is I/O traffic: the `io` profile's size factors, one traversal (file
/// systems stream data after a request; they have no eager/rendezvous switch). Any other message between
/// two hosts is MPI traffic: the `mpi` profile, three traversals above its eager threshold (request to
/// send, clear to send, data). Same-host messages are unscaled, and so are those between a server beside a
/// compute node and that node (`beside`: server host -> node host; both cross the node's loopback). The
/// profiles must outlive the engine.
void apply_message_factors(const NetworkProfile* mpi, const NetworkProfile* io,
                           std::unordered_set<const sg4::Host*> servers,
                           std::unordered_map<const sg4::Host*, const sg4::Host*> beside = {});

}  // namespace ciosim::network
