#pragma once
#include <napi.h>

namespace capstan {

// Adds DnsTable and DnsUdp (cluster DNS's UDP hot path, dns_udp.cc) to the exports.
void InitDns(Napi::Env env, Napi::Object exports);

}  // namespace capstan
