sch.blockize([sch.get_block("B"), sch.get_block("C")])
