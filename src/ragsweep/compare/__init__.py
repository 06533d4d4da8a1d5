"""The compare layer: per-slice tables, the paired bootstrap, decisions and the report's
renderers. Pure numpy and pandas: nothing here logs or reads MLflow."""
