# get_output_blocks lists the writer of the output D; set_scope moves B and C
# (allocated in the root block) to shared / local memory; setting C's scope
# again is a no-op that is still traced.
root = sch.get_block("root")
d, = sch.get_output_blocks(root)
i, j = sch.get_loops(d)
sch.set_scope("B", 0, "shared")
sch.set_scope("C", 0, "local")
sch.set_scope("C", 0, "local")
print(sch.trace)
