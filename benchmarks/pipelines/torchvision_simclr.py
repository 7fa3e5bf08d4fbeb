"""A SimCLR-style view: random crop, flip, strong colour jitter, grayscale, blur."""

import torchvision.transforms as T

size = 224
color_jitter = T.ColorJitter(0.8, 0.8, 0.8, 0.2)
simclr_transform = T.Compose(
    [
        T.RandomResizedCrop(size=size),
        T.RandomHorizontalFlip(),
        T.RandomApply([color_jitter], p=0.8),
        T.RandomGrayscale(p=0.2),
        T.GaussianBlur(kernel_size=23, sigma=(0.1, 2.0)),
        T.ToTensor(),
        T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225]),
    ]
)
