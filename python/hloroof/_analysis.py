"""`Analysis`: one module analysed on one device at once (hloroof/analysis.h)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

from . import _hloroof
from ._hloroof import Advice, DeviceSpec, DeviceTarget, MemoryReport, Prediction
from ._inputs import _count, _input, _target, _Text


class Analysis:
    """One module analysed on one device at once, as ``hloroof predict`` makes it
    (hloroof/analysis.h): the prediction beside the memory analysis, then the advice and the
    XSpace, each made where it depends on nothing still running. `device`, `settings` and
    `options` as for `predict`; `top_buffers` and `first_tile_padding` as for `memory`;
    `advise`: make the advice too, `top` and `evidence_rows` as for `advise`; `xspace_dir`: write
    the predicted step as an XSpace into that log folder, `steps`, `run` and `host` as for
    ``Prediction.write_xspace``; `threads` that run at once (1: one after the other).

    ``run()`` makes them, once (the prediction's error, else the XSpace's, is raised); each of
    ``prediction()``, ``memory()``, ``advice()`` and ``write_xspace()`` runs it first where it
    has not run, and gives what `predict`, `memory`, `advise` and ``Prediction.write_xspace``
    give for the same module and device. The advice's warnings are the prediction's.
    """

    def __init__(self, module_or_text: _Text, device: Union[str, DeviceSpec, None] = None,
                 settings: Optional[List[str]] = None, *, top_buffers: int = 20,
                 first_tile_padding: bool = True, advise: bool = False, top: int = 0,
                 evidence_rows: int = 5, xspace_dir: Optional[str] = None, steps: int = 1,
                 run: str = "", host: str = "hloroof-predicted", threads: int = 2,
                 **options: Any) -> None:
        for name, value in (("top_buffers", top_buffers), ("top", top),
                            ("evidence_rows", evidence_rows), ("threads", threads)):
            _count("Analysis", name, value)
        source = _input(module_or_text)
        target, opts, notes, _ = _target("Analysis", device, source, options, settings)
        self._module = source.module
        self._analysis = _hloroof._Analysis(
            source.module, target, opts, notes, top_buffers=top_buffers,
            first_tile_padding=first_tile_padding, advise=advise, top=top,
            evidence_rows=evidence_rows, xspace_dir=xspace_dir, steps=steps, run=run, host=host,
            threads=threads)
        self._prediction: Optional[Prediction] = None
        self._memory: Optional[MemoryReport] = None
        self._advice: Optional[Advice] = None

    @property
    def target(self) -> DeviceTarget:
        """The device and slice analysed on."""
        return self._analysis.target

    def run(self) -> None:
        """Makes what was asked for, once."""
        self._analysis.run()

    def prediction(self) -> Prediction:
        """The prediction (`predict`'s for the same module and device)."""
        if self._prediction is None:
            self._prediction = self._analysis.prediction()
            self._prediction._source = self._module
            self._prediction._device = self.target.spec
        return self._prediction

    def memory(self) -> MemoryReport:
        """The memory analysis (`memory`'s for the same module and device)."""
        if self._memory is None:
            self._memory = self._analysis.memory()
        return self._memory

    def advice(self) -> Advice:
        """The advice (`advise`'s for the same module and device); ValueError where `advise`
        was not asked for."""
        if self._advice is None:
            self._advice = self._analysis.advice()
        return self._advice

    def write_xspace(self) -> Dict[str, Any]:
        """The XSpace written (``path``, ``events``, ``program_id``, ``unfilled``, as
        ``Prediction.write_xspace`` gives them); ValueError where no `xspace_dir` was given."""
        return self._analysis.write_xspace()
