v = sch.sample_categorical(candidates=[1, 2, 3], probs=[0.5, 0.5])
