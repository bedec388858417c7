sch.pad_einsum("C", [4, 4])
