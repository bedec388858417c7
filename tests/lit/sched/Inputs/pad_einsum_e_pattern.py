sch.pad_einsum("block", [32])
