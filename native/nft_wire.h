// The compact binary form of a transaction that JS sends to nftApply. Decoding it happens
// off the JS thread, so a 100,000-rule transaction costs the event loop one Buffer copy
// instead of a million property reads. Layout (little-endian), as written by
// src/nft/wire.ts:
//   u32 opCount, then per op: u8 kind (OpKind order), u32 family, str table, u8 exclusive,
//   then the kind's fields; an expression is u8 name index (ExprNames order), u8 attrCount,
//   then per attribute u8 index (its AttrSpec order) and a value of that attribute's kind.
//   str/bytes = u16 length + bytes; u64 = 8 bytes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "nft_ops.h"

namespace capstan::nft {

// Throws OpError(EINVAL, ..., kind "TypeError") on malformed input.
std::vector<Op> DecodeOps(const uint8_t* data, size_t len);

}  // namespace capstan::nft
