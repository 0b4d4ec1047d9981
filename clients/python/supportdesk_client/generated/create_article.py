from typing import Optional

from .base_model import BaseModel
from .fragments import ArticleFields, MutationErrorFields


class CreateArticle(BaseModel):
    create_article: Optional["CreateArticleCreateArticle"]


class CreateArticleCreateArticle(BaseModel):
    article: Optional["CreateArticleCreateArticleArticle"]
    error: Optional["CreateArticleCreateArticleError"]


CreateArticleCreateArticleArticle = ArticleFields
CreateArticleCreateArticleError = MutationErrorFields
CreateArticle.model_rebuild()
CreateArticleCreateArticle.model_rebuild()
