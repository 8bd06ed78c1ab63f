export default {"pat_str":"x","special_tokens":{"<|end|>":4},"bpe_ranks":"! 0 YQ== Yg==\n! 2 YWI="};
