"""torchvision's ImageNet training recipe (as in torchvision's reference scripts)."""

import torchvision.transforms as T

train_transform = T.Compose(
    [
        T.RandomResizedCrop(224),
        T.RandomHorizontalFlip(),
        T.ToTensor(),
        T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ]
)
