//! Pure 3D bin packing engine (placeholder until the packing issue lands).
