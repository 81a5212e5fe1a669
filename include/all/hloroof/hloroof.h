// Everything public in hloroof.
#ifndef HLOROOF_HLOROOF_H_
#define HLOROOF_HLOROOF_H_

#include "hloroof/advise.h"
#include "hloroof/analysis_json.h"
#include "hloroof/attributes.h"
#include "hloroof/backend_config.h"
#include "hloroof/computation.h"
#include "hloroof/cost.h"
#include "hloroof/device_target.h"
#include "hloroof/diff.h"
#include "hloroof/edit.h"
#include "hloroof/hlo_proto.h"
#include "hloroof/hlo_text.h"
#include "hloroof/instruction.h"
#include "hloroof/memory.h"
#include "hloroof/metadata.h"
#include "hloroof/module.h"
#include "hloroof/opcode.h"
#include "hloroof/platform.h"
#include "hloroof/predict.h"
#include "hloroof/profile.h"
#include "hloroof/replica_groups.h"
#include "hloroof/report.h"
#include "hloroof/shape.h"
#include "hloroof/shape_size.h"
#include "hloroof/shape_text.h"
#include "hloroof/sharding.h"
#include "hloroof/summary_json.h"
#include "hloroof/version.h"
#include "hloroof/xspace.h"

#endif  // HLOROOF_HLOROOF_H_
