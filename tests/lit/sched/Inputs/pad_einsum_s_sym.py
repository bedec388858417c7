sch.pad_einsum(sch.get_block("S"), [16, 1])
