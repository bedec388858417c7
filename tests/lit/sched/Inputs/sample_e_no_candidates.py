v = sch.sample_categorical(candidates=[], probs=[])
