sch.blockize([sch.get_block("B"), sch.get_block("C")], preserve_unit_iters=False)
print(sch.trace)
