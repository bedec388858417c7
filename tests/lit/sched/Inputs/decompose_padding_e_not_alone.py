sch.pad_einsum("B", [4, 7])
i0, i1 = sch.get_loops("A_pad")
sch.write_at(i1, "A_pad", 0, "shared")
sch.decompose_padding("A_pad", i0)
