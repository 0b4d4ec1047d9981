from typing import Optional

from .base_model import BaseModel
from .fragments import ArticleFields, PageInfoFields


class Articles(BaseModel):
    articles: Optional["ArticlesArticles"]


class ArticlesArticles(BaseModel):
    total_count: int
    page_info: "ArticlesArticlesPageInfo"
    edges: list["ArticlesArticlesEdges"]


ArticlesArticlesPageInfo = PageInfoFields


class ArticlesArticlesEdges(BaseModel):
    cursor: str
    node: "ArticlesArticlesEdgesNode"


ArticlesArticlesEdgesNode = ArticleFields
Articles.model_rebuild()
ArticlesArticles.model_rebuild()
ArticlesArticlesEdges.model_rebuild()
