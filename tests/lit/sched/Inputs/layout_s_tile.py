# Tile the intermediate B into 4 x 4 blocks, transpose the input A, print the trace.
sch.transform_layout("B", ("write", 0), lambda i, j: (i // 4, j // 4, i % 4, j % 4))
sch.transform_layout("B", "A", index_map=T.index_map(lambda i, j: (j, i)))
print(sch.trace)
