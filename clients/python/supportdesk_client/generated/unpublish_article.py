from typing import Optional

from .base_model import BaseModel
from .fragments import ArticleFields, MutationErrorFields


class UnpublishArticle(BaseModel):
    unpublish_article: Optional["UnpublishArticleUnpublishArticle"]


class UnpublishArticleUnpublishArticle(BaseModel):
    article: Optional["UnpublishArticleUnpublishArticleArticle"]
    error: Optional["UnpublishArticleUnpublishArticleError"]


UnpublishArticleUnpublishArticleArticle = ArticleFields
UnpublishArticleUnpublishArticleError = MutationErrorFields
UnpublishArticle.model_rebuild()
UnpublishArticleUnpublishArticle.model_rebuild()
