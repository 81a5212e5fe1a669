# Type stubs of the compiled bindings (python/bindings.cc), for editors and type checkers.
# Figures are in base units: s, B, FLOP, per second. to_dict(), to_pandas() and str() are
# bound with each class (python/bindings_results.cc).
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union, overload

# to_pandas() returns a pandas.DataFrame; pandas is optional, so the stubs do not import it.
DataFrame = Any

class ParseError(ValueError):
    """HLO text that does not parse; str() is the located message of the command-line tool."""
    line: int
    column: int
    reason: str

# ---- The module.

class OpMetadata:
    _fields: Tuple[str, ...]
    op_type: str
    op_name: str
    source_file: str
    source_line: int
    source_end_line: int
    source_column: int
    source_end_column: int
    deduplicated_name: str
    scheduling_name: str
    stack_frame_id: int
    def to_dict(self) -> Dict[str, Any]: ...

class Instruction:
    name: str
    opcode: str
    shape: str
    operands: List[Instruction]
    users: List[Instruction]
    called_computations: List[Computation]
    computation: Computation
    position: int
    is_root: bool
    parameter_number: int
    metadata: Optional[OpMetadata]
    op_name: str
    attributes: Dict[str, str]
    def set_shape(self, shape: str) -> None: ...
    def replace_operand(self, index: int, operand: Instruction) -> None: ...
    def replace_all_uses_with(self, other: Instruction) -> None: ...
    def set_attribute(self, name: str, value: str) -> None: ...
    def copy_attributes_from(self, other: Instruction) -> None: ...
    def remove_attribute(self, name: str) -> None: ...
    def set_dimensions(self, dimensions: List[int]) -> None: ...
    def infer_shape(self) -> str: ...

class Computation:
    name: str
    is_entry: bool
    execution_thread: str
    instructions: List[Instruction]
    root: Instruction
    parameters: List[Instruction]
    def instruction(self, name: str) -> Optional[Instruction]: ...
    def __len__(self) -> int: ...
    def add_instruction(self, opcode: str, name: str, operands: List[Instruction] = ...,
                        shape: Optional[str] = ...,
                        attributes: Dict[str, str] = ...,
                        before: Optional[Instruction] = ...) -> Instruction: ...
    def remove_instruction(self, instruction: Instruction) -> None: ...
    def replace_instruction(self, old: Instruction, new: Instruction) -> None: ...
    def set_root(self, instruction: Instruction) -> None: ...

class Diagnostics:
    _fields: Tuple[str, ...]
    notes: List[str]
    warnings: List[str]
    def to_dict(self) -> Dict[str, Any]: ...

class Module:
    name: str
    diagnostics: Diagnostics
    computations: List[Computation]
    entry: Computation
    instruction_count: int
    is_scheduled: bool
    replica_count: int
    num_partitions: int
    entry_marked: bool
    def computation(self, name: str) -> Optional[Computation]: ...
    def set_entry(self, name: str) -> None: ...
    def add_computation(self, name: str) -> Computation: ...
    def clone_computation(self, computation: Computation, name: str) -> Computation: ...
    def remove_computation(self, computation: Computation) -> None: ...
    def verify(self) -> None: ...
    def print(self) -> str: ...
    def as_text(self) -> str: ...

# ---- Devices.

class DeviceFigure:
    _fields: Tuple[str, ...]
    path: str
    value: float
    unit: str
    source: str
    verified: bool
    note: str
    alternatives: str

class DeviceSpec:
    _fields: Tuple[str, ...]
    name: str
    display_name: str
    aliases: List[str]
    kind: str
    origin: str
    device_note: str
    base: str
    matrix_flops_per_s: Dict[str, float]
    vector_flops_per_s: float
    transcendentals_per_s: float
    hbm_capacity_bytes: float
    hbm_bandwidth: float
    on_chip_memory_name: str
    on_chip_capacity_bytes: float
    on_chip_bandwidth: Optional[float]
    host_bandwidth: Optional[float]
    per_op_overhead_s: float
    matmul_efficiency: float
    hbm_efficiency: float
    figures: List[DeviceFigure]
    notes: List[str]
    torus_rank: int
    devices_per_chip: int
    cores_per_chip: int
    def to_dict(self) -> Dict[str, Any]: ...
    def to_json(self) -> str: ...

def devices() -> List[str]: ...
def device_summaries_to_json(devices: List[DeviceSpec]) -> str: ...
def parse_summary_to_json(file: str, module: Module, warnings: List[str] = ...) -> str: ...
def shape_to_json(shape: str) -> str: ...

# ---- Cost.

class CostOptions:
    _fields: Tuple[str, ...]
    use_padded_sizes: bool
    default_trip_count: int
    fused_records: bool
    def __init__(self) -> None: ...
    def to_dict(self) -> Dict[str, Any]: ...

class SpaceBytes:
    _fields: Tuple[str, ...]
    device: float
    on_chip: float
    host: float

class OpCost:
    _fields: Tuple[str, ...]
    flops: float
    matrix_flops: float
    vector_flops: float
    matrix_flops_by_type: Dict[str, float]
    transcendentals: float
    bytes: float
    bytes_read: float
    bytes_written: float
    padded_read: SpaceBytes
    padded_written: SpaceBytes
    padded_bytes: float
    hbm_bytes: float
    on_chip_bytes: float
    host_bytes: float
    xla_flops: float
    xla_transcendentals: float
    xla_bytes_accessed: float
    unknown_ops: int
    def to_dict(self) -> Dict[str, Any]: ...

class CollectiveCost:
    _fields: Tuple[str, ...]
    kind: str
    is_async: bool
    is_host_transfer: bool
    id_mode: str
    channel_id: Optional[int]
    payload_bytes: float
    group_size: int
    groups: List[List[int]]
    pairs: List[Tuple[int, int]]

class TripCount:
    _fields: Tuple[str, ...]
    count: int
    source: str

class InstructionCost:
    _fields: Tuple[str, ...]
    computation: Computation
    instruction: Instruction
    role: str
    multiplier: float
    cost: OpCost
    unknown: bool
    collective: Optional[CollectiveCost]
    trip_count: Optional[TripCount]
    def to_dict(self) -> Dict[str, Any]: ...

class ComputationCost:
    _fields: Tuple[str, ...]
    computation: Computation
    role: str
    multiplier: float
    per_execution: OpCost
    def to_dict(self) -> Dict[str, Any]: ...

class InstructionCostList:
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[InstructionCost]: ...
    @overload
    def __getitem__(self, i: int) -> InstructionCost: ...
    @overload
    def __getitem__(self, s: slice) -> InstructionCostList: ...

class ComputationCostList:
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[ComputationCost]: ...
    def __getitem__(self, i: int) -> ComputationCost: ...

class ModuleCost:
    _fields: Tuple[str, ...]
    module_name: str
    instructions: InstructionCostList
    computations: ComputationCostList
    totals: OpCost
    unknown: List[Instruction]
    notes: List[str]
    is_lower_bound: bool
    def to_json(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def to_pandas(self) -> DataFrame: ...

# ---- Memory.

class MemoryBuffer:
    _fields: Tuple[str, ...]
    id: int
    name: str
    instruction: str
    shape_index: List[int]
    computation: str
    shape: str
    kind: str
    is_output: bool
    donated: bool
    logical_bytes: int
    padded_bytes: int
    padding_waste_bytes: int
    memory_space: int
    memory: str
    live_from: str
    live_to: str
    allocation: int
    allocation_offset: int
    program_from: int
    program_to: int
    shares_with: int
    def to_dict(self) -> Dict[str, Any]: ...

class MemoryAllocation:
    _fields: Tuple[str, ...]
    index: int
    kind: str
    bytes: int
    memory_space: int
    maybe_live_out: bool
    parameter_number: int
    buffer_count: int
    buffers: List[str]
    def to_dict(self) -> Dict[str, Any]: ...

class MemoryBreakdown:
    _fields: Tuple[str, ...]
    parameters: int
    outputs: int
    temporaries: int
    constants: int
    total: int

class PeakFrame:
    _fields: Tuple[str, ...]
    computation: str
    instruction: str

class LiveBytesPoint:
    _fields: Tuple[str, ...]
    instruction: str
    device_bytes: int
    computation: str
    depth: int

class CapacityCheck:
    _fields: Tuple[str, ...]
    device: str
    capacity_bytes: int
    basis: str
    checked_bytes: int
    fits: bool
    headroom: float
    shortfall_bytes: int

class DeviceTarget:
    _fields: Tuple[str, ...]
    spec: DeviceSpec
    topology: str
    source: str
    notes: List[str]
    warnings: List[str]

class MemoryReport:
    _fields: Tuple[str, ...]
    module_name: str
    entry: str
    entry_marked: bool
    scheduled: bool
    peak_bytes: int
    peak_at: str
    peak_path: List[PeakFrame]
    peak_breakdown: MemoryBreakdown
    peak_padding_waste_bytes: int
    argument_bytes: int
    output_bytes: int
    alias_bytes: int
    temporary_peak_bytes: int
    temp_bytes: int
    host_temp_bytes: int
    footprint_bytes: int
    allocations: List[MemoryAllocation]
    allocation_counts: Dict[str, int]
    temps_in_live_out: int
    shared_with_operand: int
    constant_bytes: int
    padding_waste_bytes: int
    peak_on_chip_bytes: int
    peak_host_bytes: int
    buffer_count: int
    peak_buffer_count: int
    largest_buffers: List[MemoryBuffer]
    peak_buffers: List[MemoryBuffer]
    live_curve: List[LiveBytesPoint]
    live_timeline: List[LiveBytesPoint]
    capacity: Optional[CapacityCheck]
    notes: List[str]
    warnings: List[str]
    def to_json(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def to_pandas(self) -> DataFrame: ...

# ---- Prediction.

class PredictOptions:
    _fields: Tuple[str, ...]
    device_coordinates: List[List[int]]
    collective_formula: str
    collective_large_n: bool
    default_trip_count: int
    use_padded_sizes: bool
    include_overhead: bool
    roofline_only: bool
    max_expanded_iterations: int
    model_flops: float
    explain: bool
    timeline: bool
    max_ops: int
    def __init__(self) -> None: ...
    def to_dict(self) -> Dict[str, Any]: ...

class CollectivePrediction:
    _fields: Tuple[str, ...]
    kind: str
    payload_bytes: float
    group_size: int
    formula: str
    time_s: float
    exposed_s: float
    hidden_s: float
    is_async: bool
    approximate: bool
    def to_dict(self) -> Dict[str, Any]: ...

class AsyncPrediction:
    _fields: Tuple[str, ...]
    stream: str
    start: str
    done: str
    latency_s: float
    queued_s: float
    hidden_s: float
    exposed_s: float
    contended_s: float
    def to_dict(self) -> Dict[str, Any]: ...

class TimeRange:
    _fields: Tuple[str, ...]
    low_s: float
    high_s: float
    low: str
    high: str
    def to_dict(self) -> Dict[str, Any]: ...

class OpPrediction:
    _fields: Tuple[str, ...]
    instruction: Optional[Instruction]
    name: str
    opcode: str
    computation: str
    category: str
    op_name: str
    multiplier: float
    time_s: float
    roofline_time_s: float
    efficiency: float
    time_range: Optional[TimeRange]
    model: str
    total_time_s: float
    total_roofline_time_s: float
    bound: str
    resource: str
    flops: float
    matrix_flops: float
    transcendentals: float
    hbm_bytes: float
    on_chip_bytes: float
    host_bytes: float
    explanation: str
    collective: Optional[CollectivePrediction]
    async_: Optional[AsyncPrediction]
    def to_dict(self) -> Dict[str, Any]: ...

class TimelineEvent:
    _fields: Tuple[str, ...]
    name: str
    track: str
    start_s: float
    duration_s: float
    depth: int
    instruction: Optional[Instruction]
    def to_dict(self) -> Dict[str, Any]: ...

class Breakdown:
    _fields: Tuple[str, ...]
    compute_s: float
    memory_s: float
    collective_exposed_s: float
    collective_hidden_s: float
    overhead_s: float
    async_hidden_s: float
    def to_dict(self) -> Dict[str, Any]: ...

class OpPredictionList:
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[OpPrediction]: ...
    @overload
    def __getitem__(self, i: int) -> OpPrediction: ...
    @overload
    def __getitem__(self, s: slice) -> OpPredictionList: ...

class TimelineEventList:
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[TimelineEvent]: ...
    def __getitem__(self, i: int) -> TimelineEvent: ...

class Prediction:
    _fields: Tuple[str, ...]
    device: str
    topology: str
    step_time_s: float
    roofline_step_time_s: float
    step_time_range: Optional[TimeRange]
    breakdown: Breakdown
    flops: float
    matrix_flops: float
    hbm_bytes: float
    peak_flop_rate: float
    peak_flop_rate_type: str
    hfu: float
    model_flops: float
    devices: int
    mfu: Optional[float]  # None without model_flops
    ops: OpPredictionList
    timeline: TimelineEventList
    unknown_ops: List[str]
    assumptions: List[str]
    warnings: List[str]
    is_lower_bound: bool
    def to_json(self) -> str: ...
    def summary(self, top: int = 10) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def to_pandas(self) -> DataFrame: ...
    def write_xspace(self, log_dir: str, steps: int = 1, run: str = "",
                     host: str = "hloroof-predicted") -> Dict[str, Any]: ...

class DiffSide:
    _fields: Tuple[str, ...]
    device: str
    step_time_s: float
    roofline_step_time_s: float
    flops: float
    hbm_bytes: float
    op_count: int
    peak_bytes: Optional[int]
    warnings: List[str]
    assumptions: List[str]

class OpDelta:
    _fields: Tuple[str, ...]
    name: str
    before_name: str
    computation: str
    opcode: str
    change: str
    before_time_s: float
    after_time_s: float
    delta_time_s: float
    before_flops: float
    after_flops: float
    before_hbm_bytes: float
    after_hbm_bytes: float

class OpDeltaList:
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[OpDelta]: ...
    def __getitem__(self, i: int) -> OpDelta: ...

class PredictionDiff:
    _fields: Tuple[str, ...]
    device: str
    before: DiffSide
    after: DiffSide
    ops: OpDeltaList
    changed: int
    unchanged: int
    added: int
    removed: int
    renamed: int
    def to_json(self) -> str: ...
    def summary(self, top: int = 10) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...

# ---- Advice.

class AdviceEvidence:
    _fields: Tuple[str, ...]
    op: str
    computation: str
    scope: str
    shape: str
    detail: str
    bytes: float
    time_s: float
    multiplier: float
    time_at_stake_s: float
    def __getitem__(self, key: str) -> Any: ...
    def keys(self) -> Tuple[str, ...]: ...
    def to_dict(self) -> Dict[str, Any]: ...

class AdviceFinding:
    _fields: Tuple[str, ...]
    id: str
    title: str
    what: str
    fix: str
    time_at_stake_s: float
    step_share: float
    counted_elsewhere_s: float
    arithmetic: str
    bytes_at_stake: float
    op_count: int
    evidence: List[AdviceEvidence]
    def __getitem__(self, key: str) -> Any: ...
    def keys(self) -> Tuple[str, ...]: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Advice:
    _fields: Tuple[str, ...]
    device: str
    module: str
    warnings: List[str]
    step_time_s: float
    lower_bound: bool
    time_at_stake_s: float
    notes: List[str]
    findings: List[AdviceFinding]
    def __getitem__(self, key: str) -> Any: ...
    def keys(self) -> Tuple[str, ...]: ...
    def to_json(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...

# Private entry points behind hloroof.parse, cost, memory, predict, ... (bindings_calls.cc).
def _load(source: Union[str, bytes, bytearray, Any], file_name: str = "",
          module_name: str = "") -> Tuple[Module, bool]: ...
def _target(device: Any, module: Optional[Module], topology: str = "", settings: Any = None,
            function: str = "", accepts: str = "any",
            compiled_for: str = "") -> DeviceTarget: ...
def _settings(settings: Any, function: str) -> List[str]: ...
def _predict(module: Module, target: DeviceTarget, options: PredictOptions, notes: List[str],
             keep_module: bool) -> Prediction: ...
def _cost(module: Module, options: CostOptions) -> ModuleCost: ...
def _memory(module: Module, target: DeviceTarget, top_buffers: int, first_tile_padding: bool,
            notes: List[str], xla: Optional[Dict[str, int]] = None) -> MemoryReport: ...
def _advise(module: Module, target: DeviceTarget, options: PredictOptions, notes: List[str],
            top: int, evidence_rows: int) -> Advice: ...
def _compare(module: Module, targets: List[DeviceTarget],
             options: PredictOptions) -> Tuple[List[Prediction], List[Optional[CapacityCheck]]]: ...
def _peak_bytes(module: Module) -> int: ...
def _write_xspace(prediction: Prediction, log_dir: Any, steps: int, run: str,
                  host: str) -> Dict[str, Any]: ...
def _device(name: str) -> DeviceSpec: ...
def _profile_target(device: Any, profile: Any, profile_path: str, module: Module,
                    topology: str = "") -> Tuple[DeviceTarget, str]: ...
def _profile_module_times(profile: Any) -> List[Tuple[str, float]]: ...
def _compare_profile(module: Module, prediction: Prediction, profile: Any, module_name: str,
                     device_index: int, stand_in: str = "") -> Tuple[str, str]: ...
def _parse_cpu_ms(text: Union[str, bytes]) -> Tuple[float, bool]: ...
def _predict_cpu_ms(text: Union[str, bytes], device: str) -> Tuple[float, bool]: ...
def _render_comparison(predictions: List[Prediction], top: int,
                       memory: List[Optional[CapacityCheck]]) -> str: ...
def _device_for_kind(kind: str) -> Tuple[str, str, bool]: ...
class _Analysis:
    def __init__(self, module: Module, target: DeviceTarget, predict: PredictOptions,
                 notes: List[str], *, top_buffers: int, first_tile_padding: bool, advise: bool,
                 top: int, evidence_rows: int, xspace_dir: Any, steps: int, run: str, host: str,
                 threads: int) -> None: ...
    def run(self) -> None: ...
    def prediction(self) -> Prediction: ...
    def memory(self) -> MemoryReport: ...
    def advice(self) -> Advice: ...
    def write_xspace(self) -> Dict[str, Any]: ...
    @property
    def target(self) -> DeviceTarget: ...
def _calibrate(modules: List[Module], profiles: List[str], device: str, name: str,
               device_index: int, settings: List[str],
               module_name: str = ...) -> Tuple[Dict[str, Any], str]: ...
_DEFAULT_TPU_DEVICE: str
_DEFAULT_GPU_DEVICE: str
__version__: str
def _diff(before: Prediction, after: Prediction, before_peak: Optional[int],
          after_peak: Optional[int]) -> PredictionDiff: ...
def _diff_trace(diff: PredictionDiff, before: Prediction, after: Prediction) -> str: ...
class _VariantTable:
    def __init__(self, module: Module, target: DeviceTarget, options: PredictOptions) -> None: ...
    @property
    def op_count(self) -> int: ...
    def times(self, flop_rate_scale: List[float], hbm_bandwidth_scale: List[float],
              link_bandwidth_scale: List[float]) -> Tuple[List[float], List[float]]: ...
