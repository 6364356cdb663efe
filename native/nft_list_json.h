// A read-back table as JSON text, built on the worker thread: V8's JSON.parse turns it into
// objects far faster than one N-API call per property would. Byte strings are lowercase hex.
#pragma once
#include <string>

#include "nft_ops.h"

namespace capstan::nft {

std::string TableJson(const TableState& st);

}  // namespace capstan::nft
