"""Insights: how onboarding is going, for the people who run the compliance team
(docs/insights.md).

What others may use: the figures (`compute_insights`), their filters, views, CSV rows and charts.
"""

from gatehouse.insights.charts import charts_of, duration_words
from gatehouse.insights.rules import Filters, filters_of, nearest_rank
from gatehouse.insights.schemas import CSV_HEADER, Insights, InsightsView, csv_rows, insights_view
from gatehouse.insights.service import compute_insights

__all__ = [
    "CSV_HEADER",
    "Filters",
    "Insights",
    "InsightsView",
    "charts_of",
    "compute_insights",
    "csv_rows",
    "duration_words",
    "filters_of",
    "insights_view",
    "nearest_rank",
]
