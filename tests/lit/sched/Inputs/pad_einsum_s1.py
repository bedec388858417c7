sch.pad_einsum("C", [4, 4, 4])
print(sch.trace)
