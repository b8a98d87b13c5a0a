"""Helpers of examples/multimodal_pipeline.py: the data sources (man pages,
scikit-learn's digits), the Ray embedding workers, the report."""
