{
  "targets": [
    {
      "target_name": "capstan",
      "sources": [
        "native/addon.cc",
        "native/op_error.cc",
        "native/js_args.cc",
        "native/netns_thread.cc",
        "native/netlink_socket.cc",
        "native/netlink_link.cc",
        "native/netlink_addr_route.cc",
        "native/netlink_neigh.cc",
        "native/netlink_batch.cc",
        "native/netlink_js.cc",
        "native/nft_socket.cc",
        "native/nft_expr_attrs.cc",
        "native/nft_apply.cc",
        "native/nft_list.cc",
        "native/nft_wire.cc",
        "native/nft_list_json.cc",
        "native/nft_js.cc",
        "native/nft_monitor.cc",
        "native/dns_udp.cc"
      ],
      "include_dirs": ["<!(node -p \"require('node-addon-api').include_dir\")"],
      "defines": ["NAPI_VERSION=8", "NODE_ADDON_API_DISABLE_DEPRECATED"],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-fno-rtti"],
      "cflags_cc": ["-std=c++17", "-Wall", "-Wextra", "-Wno-unused-parameter", "-Wno-missing-field-initializers"],
      "libraries": ["-lnftnl", "-lmnl", "-lpthread"]
    }
  ]
}
