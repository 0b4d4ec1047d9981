from typing import Optional

from .base_model import BaseModel
from .fragments import ArticleFields


class Article(BaseModel):
    article: Optional["ArticleArticle"]


ArticleArticle = ArticleFields
Article.model_rebuild()
