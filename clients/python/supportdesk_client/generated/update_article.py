from typing import Optional

from .base_model import BaseModel
from .fragments import ArticleFields, MutationErrorFields


class UpdateArticle(BaseModel):
    update_article: Optional["UpdateArticleUpdateArticle"]


class UpdateArticleUpdateArticle(BaseModel):
    article: Optional["UpdateArticleUpdateArticleArticle"]
    error: Optional["UpdateArticleUpdateArticleError"]


UpdateArticleUpdateArticleArticle = ArticleFields
UpdateArticleUpdateArticleError = MutationErrorFields
UpdateArticle.model_rebuild()
UpdateArticleUpdateArticle.model_rebuild()
