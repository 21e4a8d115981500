// The student network embedded in the submission: base64 of a .twnet file, one line per element.
#pragma once

#include "prelude.hpp"

// {nullptr}: none (the parts as they are, and the tools binary built without weights).
// (tw-rl export --target cpp replaces the next two lines.)
static const char *const EMBEDDED_WEIGHTS[] = {nullptr};  // @@EMBEDDED_WEIGHTS@@
static const char *const EMBEDDED_WEIGHTS_NAME = "";      // @@EMBEDDED_WEIGHTS_NAME@@
