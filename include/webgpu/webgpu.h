/* webgpu.h as libunlost-webgpu speaks it, for programs that link it (or
 * preload it) instead of the implementation: `#include <webgpu/webgpu.h>`
 * with `pkg-config --cflags unlost-webgpu` or CMake's unlost::webgpu.
 *
 * These are unlost's own declarations of the pinned implementation's header
 * revision (Dawn df73f16, 2025: every type, value and entry point of it; see
 * docs/webgpu.md), generated from src/wgpu/webgpu.api and checked against
 * the implementation's debug info and symbol table (tests/test_abi.c). A
 * program built against another revision's header must not be run through
 * this build. */
#ifndef UNLOST_WEBGPU_WEBGPU_H
#define UNLOST_WEBGPU_WEBGPU_H

#include "wgpu/wgpu_api.h"

#endif
