//! Merkle trees as Certificate Transparency builds them (docs/ledger.md, "The
//! transparency log"): a leaf's hash is `SHA-256(0x00 ‖ data)`, a node's
//! `SHA-256(0x01 ‖ left ‖ right)`, a tree of `n > 1` leaves splits at the
//! largest power of two below `n`, and the empty tree's root is `SHA-256("")`.
//!
//! Proofs are built from complete subtrees only (a node at `level` and
//! `index` covers leaves `[index·2^level, (index+1)·2^level)`), so a store
//! that keeps those nodes, appended as leaves arrive, serves any inclusion or
//! consistency proof with O(log² n) node reads and no leaf scan.
//!
//! The verification follows the standard's algorithms step by step; the
//! Python verifier (docs/verify/verify_round.py) carries the same ones.

use sha2::{Digest, Sha256};

pub type Hash = [u8; 32];

/// `SHA-256(0x00 ‖ data)`.
pub fn leaf_hash(data: &[u8]) -> Hash {
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update(data);
    h.finalize().into()
}

/// `SHA-256(0x01 ‖ left ‖ right)`.
pub fn node_hash(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([1u8]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// The root of the tree with no leaves: `SHA-256` of nothing.
pub fn empty_root() -> Hash {
    Sha256::digest([]).into()
}

/// Where complete subtrees' hashes come from: memory, or the database.
pub trait Nodes {
    type Error;
    /// The hash of the complete subtree at `level` and `index`.
    fn node(&mut self, level: u32, index: u64) -> Result<Hash, Self::Error>;
}

/// The largest power of two strictly below `n` (`n > 1`).
fn split(n: u64) -> u64 {
    debug_assert!(n > 1);
    1u64 << (63 - (n - 1).leading_zeros())
}

/// `MTH(D[lo:hi])` for `lo < hi`: one stored node when the range is an
/// aligned power of two, else the standard's split.
pub fn subtree<N: Nodes>(nodes: &mut N, lo: u64, hi: u64) -> Result<Hash, N::Error> {
    let n = hi - lo;
    if n.is_power_of_two() && lo % n == 0 {
        return nodes.node(n.trailing_zeros(), lo >> n.trailing_zeros());
    }
    let k = split(n);
    let left = subtree(nodes, lo, lo + k)?;
    let right = subtree(nodes, lo + k, hi)?;
    Ok(node_hash(&left, &right))
}

/// The root of the first `size` leaves.
pub fn root<N: Nodes>(nodes: &mut N, size: u64) -> Result<Hash, N::Error> {
    if size == 0 {
        Ok(empty_root())
    } else {
        subtree(nodes, 0, size)
    }
}

/// The audit path of leaf `index` in the tree of the first `size` leaves
/// (`index < size`), leaf end first.
pub fn inclusion_proof<N: Nodes>(nodes: &mut N, index: u64, size: u64) -> Result<Vec<Hash>, N::Error> {
    let mut proof = Vec::new();
    path(nodes, index, 0, size, &mut proof)?;
    Ok(proof)
}

fn path<N: Nodes>(nodes: &mut N, m: u64, lo: u64, hi: u64, out: &mut Vec<Hash>) -> Result<(), N::Error> {
    let n = hi - lo;
    if n <= 1 {
        return Ok(());
    }
    let k = split(n);
    if m < k {
        path(nodes, m, lo, lo + k, out)?;
        out.push(subtree(nodes, lo + k, hi)?);
    } else {
        path(nodes, m - k, lo + k, hi, out)?;
        out.push(subtree(nodes, lo, lo + k)?);
    }
    Ok(())
}

/// The proof that the tree of the first `old_size` leaves is a prefix of the
/// tree of the first `new_size` (`old_size <= new_size`); empty when either
/// size is 0 or they are equal.
pub fn consistency_proof<N: Nodes>(nodes: &mut N, old_size: u64, new_size: u64) -> Result<Vec<Hash>, N::Error> {
    let mut proof = Vec::new();
    if old_size > 0 && old_size < new_size {
        subproof(nodes, old_size, 0, new_size, true, &mut proof)?;
    }
    Ok(proof)
}

fn subproof<N: Nodes>(
    nodes: &mut N,
    m: u64,
    lo: u64,
    hi: u64,
    whole: bool,
    out: &mut Vec<Hash>,
) -> Result<(), N::Error> {
    let n = hi - lo;
    if m == n {
        if !whole {
            out.push(subtree(nodes, lo, hi)?);
        }
        return Ok(());
    }
    let k = split(n);
    if m <= k {
        subproof(nodes, m, lo, lo + k, whole, out)?;
        out.push(subtree(nodes, lo + k, hi)?);
    } else {
        subproof(nodes, m - k, lo + k, hi, false, out)?;
        out.push(subtree(nodes, lo, lo + k)?);
    }
    Ok(())
}

/// Whether `proof` shows the leaf whose hash is `leaf` at `index` in the tree
/// of `size` leaves whose root is `root`.
pub fn verify_inclusion(leaf: &Hash, index: u64, size: u64, proof: &[Hash], root: &Hash) -> bool {
    if index >= size {
        return false;
    }
    let (mut f, mut s) = (index, size - 1);
    let mut r = *leaf;
    for p in proof {
        if s == 0 {
            return false;
        }
        if f & 1 == 1 || f == s {
            r = node_hash(p, &r);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            r = node_hash(&r, p);
        }
        f >>= 1;
        s >>= 1;
    }
    s == 0 && r == *root
}

/// Whether `proof` shows that the tree of `old_size` leaves with root
/// `old_root` is a prefix of the tree of `new_size` leaves with root
/// `new_root`.
pub fn verify_consistency(old_size: u64, new_size: u64, old_root: &Hash, new_root: &Hash, proof: &[Hash]) -> bool {
    if old_size > new_size {
        return false;
    }
    if old_size == new_size {
        return proof.is_empty() && old_root == new_root;
    }
    if old_size == 0 {
        // Every tree extends the empty one.
        return proof.is_empty() && *old_root == empty_root();
    }
    if proof.is_empty() {
        return false;
    }
    let mut path: Vec<Hash> = Vec::with_capacity(proof.len() + 1);
    if old_size.is_power_of_two() {
        path.push(*old_root);
    }
    path.extend_from_slice(proof);
    let (mut f, mut s) = (old_size - 1, new_size - 1);
    while f & 1 == 1 {
        f >>= 1;
        s >>= 1;
    }
    let (mut fr, mut sr) = (path[0], path[0]);
    for c in &path[1..] {
        if s == 0 {
            return false;
        }
        if f & 1 == 1 || f == s {
            fr = node_hash(c, &fr);
            sr = node_hash(c, &sr);
            while f & 1 == 0 && f != 0 {
                f >>= 1;
                s >>= 1;
            }
        } else {
            sr = node_hash(&sr, c);
        }
        f >>= 1;
        s >>= 1;
    }
    fr == *old_root && sr == *new_root && s == 0
}

/// The complete nodes that appending leaf number `index` (from 0) completes:
/// the leaf itself at level 0, then each parent it closes, as
/// `(level, index, hash)`. `left_sibling(level, index)` reads the stored left
/// sibling of the node just completed.
pub fn appended_nodes<E>(
    index: u64,
    leaf: Hash,
    mut left_sibling: impl FnMut(u32, u64) -> Result<Hash, E>,
) -> Result<Vec<(u32, u64, Hash)>, E> {
    let mut out = vec![(0u32, index, leaf)];
    let (mut level, mut i, mut h) = (0u32, index, leaf);
    while i & 1 == 1 {
        let left = left_sibling(level, i - 1)?;
        h = node_hash(&left, &h);
        level += 1;
        i >>= 1;
        out.push((level, i, h));
    }
    Ok(out)
}

/// A tree held in memory: every complete node, level by level. The auditor's
/// recomputation and the tests use it.
#[derive(Clone, Debug, Default)]
pub struct MemoryTree {
    levels: Vec<Vec<Hash>>,
}

impl MemoryTree {
    pub fn new() -> MemoryTree {
        MemoryTree::default()
    }

    pub fn len(&self) -> u64 {
        self.levels.first().map_or(0, |l| l.len() as u64)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a leaf given by its leaf hash.
    pub fn push(&mut self, leaf: Hash) {
        let index = self.len();
        let levels = &self.levels;
        let added = appended_nodes(index, leaf, |level, i| {
            Ok::<_, std::convert::Infallible>(levels[level as usize][i as usize])
        })
        .unwrap_or_else(|e| match e {});
        for (level, _, hash) in added {
            if self.levels.len() <= level as usize {
                self.levels.push(Vec::new());
            }
            self.levels[level as usize].push(hash);
        }
    }

    pub fn root(&mut self, size: u64) -> Hash {
        root(self, size).unwrap_or_else(|e| match e {})
    }
}

impl Nodes for MemoryTree {
    type Error = std::convert::Infallible;
    fn node(&mut self, level: u32, index: u64) -> Result<Hash, Self::Error> {
        Ok(self.levels[level as usize][index as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The standard's definition, straight from the leaves.
    fn naive_root(leaves: &[Hash]) -> Hash {
        match leaves.len() {
            0 => empty_root(),
            1 => leaves[0],
            n => {
                let k = split(n as u64) as usize;
                node_hash(&naive_root(&leaves[..k]), &naive_root(&leaves[k..]))
            }
        }
    }

    fn leaves(n: u64) -> Vec<Hash> {
        (0..n).map(|i| leaf_hash(format!("leaf {i}").as_bytes())).collect()
    }

    fn tree(leaves: &[Hash]) -> MemoryTree {
        let mut t = MemoryTree::new();
        for l in leaves {
            t.push(*l);
        }
        t
    }

    fn flip(hash: &Hash, bit: usize) -> Hash {
        let mut h = *hash;
        h[bit / 8] ^= 1 << (bit % 8);
        h
    }

    /// The root of a known tree: the standard's empty root, and a small tree
    /// checked against hashes computed by hand from the definitions.
    #[test]
    fn roots_match_the_definition() {
        assert_eq!(
            hex::encode(empty_root()),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let a = leaf_hash(b"a");
        let b = leaf_hash(b"b");
        let c = leaf_hash(b"c");
        let mut t = tree(&[a, b, c]);
        assert_eq!(t.root(3), node_hash(&node_hash(&a, &b), &c));
        assert_eq!(t.root(1), a);
        // The leaf hash domain-separates from SHA-256 of the data alone.
        assert_ne!(leaf_hash(b"a"), <[u8; 32]>::from(Sha256::digest(b"a")));
    }

    #[test]
    fn every_inclusion_and_consistency_proof_verifies_up_to_40_leaves() {
        let all = leaves(40);
        let mut t = tree(&all);
        for size in 1..=40u64 {
            let root = naive_root(&all[..size as usize]);
            assert_eq!(t.root(size), root, "root of {size}");
            for index in 0..size {
                let proof = inclusion_proof(&mut t, index, size).unwrap();
                assert!(proof.len() <= 64 - (size - 1).leading_zeros() as usize);
                assert!(verify_inclusion(&all[index as usize], index, size, &proof, &root));
                // Another leaf at that index, or the leaf past the end: refused.
                assert!(!verify_inclusion(
                    &all[(index as usize + 1) % 40],
                    index,
                    size,
                    &proof,
                    &root
                ));
                assert!(!verify_inclusion(&all[index as usize], size, size, &proof, &root));
            }
            for old in 0..=size {
                let old_root = naive_root(&all[..old as usize]);
                let proof = consistency_proof(&mut t, old, size).unwrap();
                assert!(
                    verify_consistency(old, size, &old_root, &root, &proof),
                    "consistency {old} → {size}"
                );
                if old > 0 && old < size {
                    // A different old tree (a rewritten log) is refused.
                    let mut other = all[..old as usize].to_vec();
                    other[0] = leaf_hash(b"rewritten");
                    assert!(!verify_consistency(old, size, &naive_root(&other), &root, &proof));
                    // A truncated claim: the old size moved.
                    assert!(!verify_consistency(old - 1, size, &old_root, &root, &proof) || old == 1);
                }
            }
        }
    }

    proptest! {
        /// Any single-bit change to a proof, the leaf or the root is refused.
        #[test]
        fn any_single_bit_change_fails(size in 1u64..70, index_seed in 0u64..1000, bit in 0usize..256, which_seed in 0usize..1000) {
            let all = leaves(size);
            let mut t = tree(&all);
            let index = index_seed % size;
            let root = t.root(size);
            let proof = inclusion_proof(&mut t, index, size).unwrap();
            prop_assert!(verify_inclusion(&all[index as usize], index, size, &proof, &root));
            let which = which_seed % (proof.len() + 2);
            let (leaf, mut bad_proof, mut bad_root) = (all[index as usize], proof.clone(), root);
            let leaf = if which == proof.len() { flip(&leaf, bit) } else { leaf };
            if which == proof.len() + 1 { bad_root = flip(&bad_root, bit); }
            if which < proof.len() { bad_proof[which] = flip(&bad_proof[which], bit); }
            prop_assert!(!verify_inclusion(&leaf, index, size, &bad_proof, &bad_root));
        }

        #[test]
        fn any_single_bit_change_fails_a_consistency_proof(new_size in 2u64..70, old_seed in 0u64..1000, bit in 0usize..256, which_seed in 0usize..1000) {
            let all = leaves(new_size);
            let mut t = tree(&all);
            let old = 1 + old_seed % (new_size - 1);
            let (old_root, new_root) = (t.root(old), t.root(new_size));
            let proof = consistency_proof(&mut t, old, new_size).unwrap();
            prop_assert!(verify_consistency(old, new_size, &old_root, &new_root, &proof));
            let which = which_seed % (proof.len() + 2);
            let (mut p, mut o, mut n) = (proof.clone(), old_root, new_root);
            if which < proof.len() { p[which] = flip(&p[which], bit); }
            if which == proof.len() { o = flip(&o, bit); }
            if which == proof.len() + 1 { n = flip(&n, bit); }
            prop_assert!(!verify_consistency(old, new_size, &o, &n, &p));
        }
    }
}
