sch.pad_einsum("C", [4, 0, 4])
