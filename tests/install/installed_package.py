"""Run by install_test.cmake: the installed hloroof package imports from the prefix and
predicts the bundled example. Usage: installed_package.py PREFIX EXAMPLE.hlo"""
import sys

import hloroof

prefix, example = sys.argv[1], sys.argv[2]
assert hloroof.__file__.startswith(prefix), hloroof.__file__
p = hloroof.predict(open(example).read(), "tpu_v5e:2x2")
print(p.device, p.topology, p.step_time_s > 0)
