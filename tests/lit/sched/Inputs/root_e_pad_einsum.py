sch.pad_einsum("root", [])
