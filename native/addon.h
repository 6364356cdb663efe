#pragma once
#include <napi.h>

namespace capstan {

Napi::Value NetlinkBatch(const Napi::CallbackInfo& info);
Napi::Value NftApply(const Napi::CallbackInfo& info);
Napi::Value NftList(const Napi::CallbackInfo& info);
Napi::Value NftGeneration(const Napi::CallbackInfo& info);
Napi::Value NftSchema(const Napi::CallbackInfo& info);
void InitNftMonitor(Napi::Env env, Napi::Object exports);

}  // namespace capstan
