"""Editing a module from Python: the same edits as the C++ API (hloroof/edit.h), then verify,
print and parse again."""

import pytest

import hloroof

TEXT = """HloModule m, entry_computation_layout={(f32[8,16]{1,0}, f32[16,4]{1,0})->f32[8,4]{1,0}}

ENTRY %main (a: f32[8,16], b: f32[16,4]) -> f32[8,4] {
  %a = f32[8,16]{1,0} parameter(0)
  %b = f32[16,4]{1,0} parameter(1)
  %c = f32[8,16]{1,0} copy(%a)
  ROOT %dot = f32[8,4]{1,0} dot(%c, %b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
"""


def round_trip(module):
    """verify, print, parse again: the same text, and it verifies too."""
    module.verify()
    text = module.print()
    again = hloroof.parse(text)
    again.verify()
    assert again.print() == text
    return text


def test_a_parsed_module_verifies():
    hloroof.parse(TEXT).verify()


def test_removing_a_copy():
    m = hloroof.parse(TEXT)
    main = m.entry
    main.replace_instruction(main.instruction("c"), main.instruction("a"))
    assert main.instruction("c") is None
    assert main.root.position == 2
    assert [o.name for o in main.root.operands] == ["a", "b"]
    assert "copy" not in round_trip(m)


def test_a_dot_operand_of_another_shape_fails_verify():
    m = hloroof.parse(TEXT)
    main = m.entry
    wide = main.add_instruction("parameter", "wide", shape="f32[999,7]{1,0}",
                                before=main.instruction("c"))
    assert wide.parameter_number == 2
    # Placed before c: the place in the schedule is the index in the computation's list.
    assert [i.position for i in main.instructions] == [0, 1, 2, 3, 4]
    assert wide.position == 2 and main.instruction("c").position == 3
    main.root.replace_operand(0, wide)
    # [999,7] x [16,4], contracting dimension 1 with dimension 0: 7 against 16.
    with pytest.raises(ValueError, match=r"computation main, instruction dot \(dot\): shape: "
                       r"contracting dimension 1 of wide \(f32\[999,7\]\{1,0\}\) has size 7"):
        m.verify()


def test_shapes_are_inferred_once_attributes_are_set():
    m = hloroof.parse(TEXT)
    main = m.entry
    a = main.instruction("a")
    n = main.add_instruction("negate", "n", [a], before=main.root)
    assert n.shape == "f32[8,16]{1,0}"
    t = main.add_instruction("transpose", "t", [a], attributes={"dimensions": "{1,0}"},
                             before=main.root)
    assert t.shape == "f32[16,8]"
    assert t.infer_shape() == "f32[16,8]"
    count = len(main)
    with pytest.raises(ValueError, match="cannot infer the shape of t2"):
        main.add_instruction("transpose", "t2", [a])
    assert len(main) == count  # nothing was added
    with pytest.raises(ValueError, match="unknown opcode"):
        main.add_instruction("frobnicate", "x", [a])
    round_trip(m)


def test_setting_an_entry_parameter_shape_keeps_the_header_in_step():
    m = hloroof.parse(TEXT)
    main = m.entry
    main.instruction("b").set_shape("f32[16,6]{1,0}")
    main.root.set_shape("f32[8,6]{1,0}")
    text = round_trip(m)
    assert text.splitlines()[0] == ("HloModule m, entry_computation_layout={(f32[8,16]{1,0}, "
                                    "f32[16,6]{1,0})->f32[8,6]{1,0}}")


def test_outlining_into_a_fusion():
    m = hloroof.parse(TEXT)
    main = m.entry
    fused = m.add_computation("fused_neg")
    p0 = fused.add_instruction("parameter", "p0", shape="f32[8,16]{1,0}")
    fused.set_root(fused.add_instruction("negate", "neg", [p0]))
    f = main.add_instruction("fusion", "f", [main.instruction("a")],
                             attributes={"kind": "kLoop", "calls": "%fused_neg"},
                             before=main.instruction("c"))
    assert f.shape == "f32[8,16]{1,0}"  # the fused computation's root
    main.instruction("c").replace_operand(0, f)
    assert [c.name for c in m.computations] == ["fused_neg", "main"]
    text = round_trip(m)
    assert "%f = f32[8,16]{1,0} fusion(%a), kind=kLoop, calls=%fused_neg" in text
    with pytest.raises(ValueError, match="calls it"):
        m.remove_computation(fused)
    copy = m.clone_computation(fused, "fused_neg.2")
    assert len(copy) == 2
    m.remove_computation(copy)
    assert m.computation("fused_neg.2") is None


COLLECTIVE = """HloModule c

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %s = f32[] add(%x, %y)
}

ENTRY %main (a: f32[8,16]) -> f32[8,16] {
  %a = f32[8,16]{1,0} parameter(0)
  %b = f32[8,16]{1,0} negate(%a)
  %ar = f32[8,16]{1,0} all-reduce(%a), channel_id=3, replica_groups={{0,1}}, to_apply=%add
  ROOT %m = f32[8,16]{1,0} multiply(%ar, %b)
}
"""


def test_an_all_reduce_made_asynchronous_takes_its_attributes_onto_the_start():
    m = hloroof.parse(COLLECTIVE)
    main = m.entry
    a, ar = main.instruction("a"), main.instruction("ar")
    ar.set_attribute("control-predecessors", "{%b}")
    start = main.add_instruction("all-reduce-start", "ar-start", [a], shape="f32[8,16]{1,0}",
                                 before=ar)
    start.set_attribute("control-predecessors", "{%a}")
    start.copy_attributes_from(ar)
    # ar's attributes, %add called from the start too; the start's own control predecessor
    # stays and ar's (%b) is not copied.
    assert start.attributes == {"channel_id": "3", "replica_groups": "{{0,1}}",
                                "to_apply": "%add", "control-predecessors": "{%a}"}
    assert [c.name for c in start.called_computations] == ["add"]
    done = main.add_instruction("all-reduce-done", "ar-done", [start],
                                shape="f32[8,16]{1,0}", before=ar)
    main.replace_instruction(ar, done)
    text = round_trip(m)
    assert ("%ar-start = f32[8,16]{1,0} all-reduce-start(%a), channel_id=3, "
            "replica_groups={{0,1}}, to_apply=%add, control-predecessors={%a}") in text
    # The reduction calls %add: its own computation's attributes cannot come to it.
    with pytest.raises(ValueError, match="s cannot call its own computation"):
        m.computation("add").root.copy_attributes_from(start)
    # Nor an instruction of another module's.
    other = hloroof.parse(COLLECTIVE)
    with pytest.raises(ValueError, match="cannot copy the attributes of ar to ar-start: it is "
                       "in another module"):
        start.copy_attributes_from(other.entry.instruction("ar"))
