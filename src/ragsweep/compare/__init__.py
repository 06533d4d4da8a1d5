"""The compare layer: paired intervals (`stats`), the comparison report's model (`report`),
its builder (`build`), configuration runs' results compared (`runs`), the renderers (`text`,
`markdown`, `html`, `plot`, sharing `format`), every file at once (`files`) and per-slice tables
(`table`). numpy, pandas, rich and (for plots) matplotlib: nothing here logs or reads MLflow;
`ragsweep.experiment.logged` does."""
